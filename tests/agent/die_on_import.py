"""A module whose import kills the process: a warm worker (--preload) lost before its round."""
import os

os._exit(7)
