"""RT001's rewrite (a server stops asking for roots): plan, site, strategies, tools, consumers,
signature. Importing the package loads none of them."""
