import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const verifyBaseUrl = (env: Record<string, string>) => loadConfig(env).verifyBaseUrl;

describe('VERIFY_BASE_URL', () => {
  it('defaults to localhost on VERIFY_PORT, so verifyUrl links reach the app where it listens', () => {
    expect(verifyBaseUrl({})).toBe('http://localhost:8081');
    expect(verifyBaseUrl({ VERIFY_PORT: '18481' })).toBe('http://localhost:18481');
  });

  it('names localhost for the loopback and wildcard addresses', () => {
    for (const HOST of ['127.0.0.1', '0.0.0.0', '::']) expect(verifyBaseUrl({ HOST, VERIFY_PORT: '9001' })).toBe('http://localhost:9001');
  });

  it('names any other HOST, an IPv6 one in brackets', () => {
    expect(verifyBaseUrl({ HOST: 'verify.internal', VERIFY_PORT: '9001' })).toBe('http://verify.internal:9001');
    expect(verifyBaseUrl({ HOST: '192.0.2.10' })).toBe('http://192.0.2.10:8081');
    expect(verifyBaseUrl({ HOST: '::1', VERIFY_PORT: '9001' })).toBe('http://[::1]:9001');
    expect(verifyBaseUrl({ HOST: 'fd00::7' })).toBe('http://[fd00::7]:8081');
  });

  it('an explicit VERIFY_BASE_URL wins over the port and host, without its trailing slash', () => {
    expect(verifyBaseUrl({ VERIFY_BASE_URL: 'https://verify.example.com/', VERIFY_PORT: '9001', HOST: '0.0.0.0' })).toBe('https://verify.example.com');
  });

  it('an empty VERIFY_BASE_URL counts as unset', () => {
    expect(verifyBaseUrl({ VERIFY_BASE_URL: '', VERIFY_PORT: '9002' })).toBe('http://localhost:9002');
  });

  it('refuses a VERIFY_BASE_URL that is not an http(s) URL, naming it', () => {
    expect(() => loadConfig({ VERIFY_BASE_URL: 'ftp://verify.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ VERIFY_BASE_URL: 'ftp://verify.example.com' })).toThrow(/VERIFY_BASE_URL/);
  });
});
