"""Widgets shared by several screens: the title bar and mode badge, the key footer, lazy lists and trees."""
