"""The event log's vocabulary (:mod:`.events`), the kernels' compiled log buffers
(:mod:`.compiled`) and the header line of a log in words (:mod:`.header`)."""
