from mcp_migrate.commands.cli import main

if __name__ == "__main__":
    main()
