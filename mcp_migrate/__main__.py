from mcp_migrate.commands.process import run

if __name__ == "__main__":
    run()
