from mcp_migrate.cli import main

if __name__ == "__main__":
    main()
