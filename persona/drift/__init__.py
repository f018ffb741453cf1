"""Drift: the persona track (Persona Preservation Records) and the reminders and anchors that repair
a voice that drifts."""
