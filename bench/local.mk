# bench: see bench/
