"""RT002's rewrite (a client stops providing roots): providers, directories, hand-over.
Importing the package loads none of them."""
