"""Benchmarks and the load generator: tools that print figures, outside the product's layers."""
