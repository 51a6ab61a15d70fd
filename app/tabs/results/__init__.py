"""The Results tab: measured results drawn from results.json files."""
