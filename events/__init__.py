"""hookproof.events"""
