"""Stage 6: reports — terminal (:mod:`.terminal`), HTML (:mod:`.html`), JSON (:mod:`.jsonout`)."""
