# jitreg: see jitreg/
