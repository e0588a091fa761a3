"""The console's static files (``static/``: HTML, JS and CSS, package data); the routes that
serve them are in ``engine/api/console.py``."""
