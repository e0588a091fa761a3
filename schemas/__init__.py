"""hookproof.schemas"""
