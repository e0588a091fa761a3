"""hookproof.projections"""
