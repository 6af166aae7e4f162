"""``python -m hwqa``: the same as the ``hwqa`` command."""

from hwqa.cli import app

if __name__ == "__main__":
    app(prog_name="hwqa")
