"""cpsolve studio: a local server that keeps the engines warm and runs puzzles as jobs.

`cpsolve studio [FOLDER]` serves the HTTP API of cpsolve.studio.server on 127.0.0.1 for the
puzzle files of FOLDER (cpsolve.studio.workspace), with a token printed at start. Needs the
`studio` extra (FastAPI on uvicorn).
"""
