// Every process the bench starts runs without NODE_EXTRA_CA_CERTS, on both sides of every ratio: this workplace sets
// it, and Node 20 then reads the whole CA bundle as each process starts (about 70 ms), which flattered every start-up
// ratio (docs/decisions/2026-11-28-start-up-rows-measured-clean.md). Imported first by every section.
delete process.env.NODE_EXTRA_CA_CERTS;
