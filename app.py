"""Start the hwqa web chat: ``python app.py`` (same as ``hwqa serve``)."""

from hwqa.cli import app

if __name__ == "__main__":
    app(["serve"])
