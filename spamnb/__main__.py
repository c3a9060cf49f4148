from .app.fastpath import main

main()
