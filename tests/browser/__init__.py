"""Browser tests of the built book (marker ``browser``; run with ``make browser-test``)."""
