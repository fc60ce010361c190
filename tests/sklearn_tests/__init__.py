"""scikit-learn's own tree tests, copied by adapt.py to drive climbing_trees."""
