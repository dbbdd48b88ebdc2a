"""Calibration: fitting a device file's parameters to measured points (``ssdco calibrate``).

:mod:`~ssdco.calibration.measurements` reads the points (CSV or fio JSON), :mod:`~ssdco.calibration.params` resolves
the fitted fields, :mod:`~ssdco.calibration.fit` fits them with ``scipy.optimize.least_squares`` on the analytic
model, :mod:`~ssdco.calibration.check` runs the DES on the fitted design, :mod:`~ssdco.calibration.report` and
:mod:`~ssdco.calibration.outfile` write the report and the calibrated device file.
"""
