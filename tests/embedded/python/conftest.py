# libcairn's Python package under test: its own pytest plugin supplies the fixtures, as a user's
# conftest.py would enable it.
pytest_plugins = ["cairn.pytest_plugin"]
