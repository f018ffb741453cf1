"""SyncScore: the local judge, stylometry, hard-rule checks, the EWMA and the drift actions."""
