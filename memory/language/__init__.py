"""Language without a model: sentences, cues, dates, word forms, language and emoji detection."""
