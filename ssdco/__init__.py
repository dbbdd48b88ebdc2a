"""ssdco: SSD-controller hardware/software co-design."""
