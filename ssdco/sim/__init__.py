"""The discrete-event simulators (the controller's DES, the functional FTL simulator) and their statistics."""
