"""Billing: money arithmetic, pricing rules, invoices, checkout and reporting."""
