"""The Review tab: agreement, adjudication and training the recognizer."""
