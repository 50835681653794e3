import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NamedCertificate {
  /** The CA's certificate (PEM), for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: string;
  cert: string;
  name: string;
}

/** A CA made for the test, and a server certificate it signed for `name` (openssl; P-256 keys, valid two days). */
export function certificateFor(name: string): NamedCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-ca-'));
  const file = (f: string) => join(dir, f);
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  writeFileSync(file('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  writeFileSync(
    file('leaf.ext'),
    `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  openssl('req', '-new', ...ec, '-keyout', 'ca.key', '-out', 'ca.csr', '-subj', '/CN=svcadm test CA');
  openssl('x509', '-req', '-in', 'ca.csr', '-signkey', 'ca.key', '-out', 'ca.pem', '-days', '2', '-extfile', 'ca.ext');
  openssl('req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${name}`);
  openssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '2',
    '-extfile',
    'leaf.ext',
  );
  return {
    caFile: file('ca.pem'),
    key: readFileSync(file('leaf.key'), 'utf8'),
    cert: readFileSync(file('leaf.pem'), 'utf8'),
    name,
  };
}
