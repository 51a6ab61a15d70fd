"""The Inspect tab: retrieval traced turn by turn, and marks on exchanges an answer needed."""
