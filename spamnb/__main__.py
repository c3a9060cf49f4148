from .fastpath import main

main()
