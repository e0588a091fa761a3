"""hookproof.engine"""
