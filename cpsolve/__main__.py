from cpsolve.cli import main

main()
