from cpsolve.entry import main

main()
