"""The Annotate tab: signed-in annotators label candidate instructions."""
