"""The certified random source: NIST SP 800-90A DRBGs, health-tested entropy,
unbiased scaling, Fisher-Yates shuffling and reproducible sub-streams.

This package never imports ``certify``: it is the part a regulator reads line by line.
"""

__version__ = "0.1.0"
