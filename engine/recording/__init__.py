"""Where outcomes are recorded: the projections declared once (``registry``), the
delivery ledger's inline hook and the asynchronous projector."""
