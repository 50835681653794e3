import { describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/api/proxy.js';

/** `host:port` of the proxy chosen for `target`, or 'direct'. */
function route(target: string, env: Record<string, string>): string {
  const proxy = proxyFor(new URL(target), env);
  return proxy ? `${proxy.display} from ${proxy.variable}` : 'direct';
}

describe('which proxy a request takes', () => {
  const proxied = { HTTPS_PROXY: 'http://proxy.corp:3128' };

  it('https targets take HTTPS_PROXY; http targets HTTP_PROXY; the lower-case one first', () => {
    expect(route('https://t.example.com', proxied)).toBe('proxy.corp:3128 from HTTPS_PROXY');
    expect(route('http://t.example.com', proxied)).toBe('direct');
    expect(route('http://t.example.com', { HTTP_PROXY: 'p:8080' })).toBe('p:8080 from HTTP_PROXY');
    expect(route('https://t.example.com', { HTTPS_PROXY: 'a:1', https_proxy: 'b:2' })).toBe('b:2 from https_proxy');
    expect(route('https://t.example.com', { HTTPS_PROXY: 'a:1', https_proxy: ' ' })).toBe('a:1 from HTTPS_PROXY');
    expect(route('https://t.example.com', {})).toBe('direct');
  });

  it('names the proxy by host and port: default ports filled in, credentials left out', () => {
    expect(route('https://t.example.com', { HTTPS_PROXY: 'http://u:p@proxy.corp' })).toBe(
      'proxy.corp:80 from HTTPS_PROXY',
    );
    expect(route('https://t.example.com', { HTTPS_PROXY: 'https://proxy.corp' })).toBe(
      'proxy.corp:443 from HTTPS_PROXY',
    );
    expect(route('https://t.example.com', { HTTPS_PROXY: 'http://[::1]:3128' })).toBe('[::1]:3128 from HTTPS_PROXY');
  });

  it('never for loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'api.localhost', '[::1]', 'LOCALHOST.']) {
      expect(route(`https://${host}:8443`, proxied)).toBe('direct');
    }
    expect(route('https://128.0.0.1', proxied)).toBe('proxy.corp:3128 from HTTPS_PROXY');
  });

  it.each([
    ['*', 'https://anything.example.org', 'direct'],
    ['t.example.com', 'https://t.example.com', 'direct'],
    ['T.Example.COM', 'https://t.example.com', 'direct'],
    ['example.com', 'https://t.example.com', 'direct'],
    ['example.com', 'https://example.com', 'direct'],
    ['.example.com', 'https://t.example.com', 'direct'],
    ['.example.com', 'https://example.com', 'direct'],
    ['*.example.com', 'https://a.b.example.com', 'direct'],
    ['example.com', 'https://notexample.com', 'proxy.corp:3128 from HTTPS_PROXY'],
    ['example.com', 'https://example.com.evil.org', 'proxy.corp:3128 from HTTPS_PROXY'],
    ['t.example.com:443', 'https://t.example.com', 'direct'],
    ['t.example.com:8443', 'https://t.example.com', 'proxy.corp:3128 from HTTPS_PROXY'],
    ['t.example.com:8443', 'https://t.example.com:8443', 'direct'],
    ['10.1.2.3', 'https://10.1.2.3', 'direct'],
    ['[2001:db8::1]:443', 'https://[2001:db8::1]', 'direct'],
    ['2001:db8::1', 'https://[2001:db8::1]:8443', 'direct'],
    ['a.org, b.org  example.com', 'https://t.example.com', 'direct'],
    ['a.org,,', 'https://t.example.com', 'proxy.corp:3128 from HTTPS_PROXY'],
    ['.', 'https://t.example.com', 'proxy.corp:3128 from HTTPS_PROXY'],
  ])('NO_PROXY=%s: %s goes %s', (noProxy, target, expected) => {
    expect(route(target, { ...proxied, NO_PROXY: noProxy })).toBe(expected);
    expect(route(target, { ...proxied, no_proxy: noProxy })).toBe(expected);
  });

  it('a proxy variable that is not an http(s) proxy URL is a usage error naming the variable, not its value', () => {
    const target = new URL('https://t.example.com');
    expect(() => proxyFor(target, { HTTPS_PROXY: 'socks5://u:pw@p:1080' })).toThrow(
      'HTTPS_PROXY names a socks5 proxy; svcadm speaks to http:// and https:// proxies',
    );
    expect(() => proxyFor(target, { https_proxy: 'http://u:pw@[bad' })).toThrow('https_proxy is not a proxy URL');
    // Not read where it does not apply.
    expect(proxyFor(new URL('https://127.0.0.1'), { HTTPS_PROXY: 'socks5://p:1080' })).toBeUndefined();
  });
});
