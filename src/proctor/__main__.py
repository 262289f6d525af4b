from proctor.cli.app import main

main()
