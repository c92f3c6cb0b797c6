"""The Spectrum game engine: pure Python, no web, database or asyncio imports."""
