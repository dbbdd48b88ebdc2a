"""Configuration -> frozen queueing network: stations, the request's route, FTL effects computed once."""
