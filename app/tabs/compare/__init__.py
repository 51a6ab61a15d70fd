"""The Compare tab: REA and a baseline answering the same messages side by side."""
