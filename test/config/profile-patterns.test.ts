import { describe, expect, it } from 'vitest';
import { parseProfilePatterns, profileMatches, selectProfiles } from '../../src/config/profile-patterns.js';

const names = ['staging', 'prod-us', 'dev', 'prod-eu', 'prod_x'];

describe('selectProfiles', () => {
  it('matches names and globs, in name order, each once', () => {
    expect(selectProfiles('prod-*', names)).toEqual(['prod-eu', 'prod-us']);
    expect(selectProfiles('*', names)).toEqual(['dev', 'prod-eu', 'prod-us', 'prod_x', 'staging']);
    expect(selectProfiles('staging, dev,prod-??', names)).toEqual(['dev', 'prod-eu', 'prod-us', 'staging']);
    expect(selectProfiles('dev,d*', names)).toEqual(['dev']);
  });

  it('refuses a pattern that matches nothing, listing the profiles there are', () => {
    expect(() => selectProfiles('qa-*', names)).toThrow(
      "--profiles 'qa-*' matches no profile; the profiles are: dev, prod-eu, prod-us, prod_x, staging",
    );
    expect(() => selectProfiles('*', [])).toThrow(
      "--profiles '*' matches no profile; there are no profiles (add one with: svcadm profiles add <name>)",
    );
  });

  it('refuses empty and invalid patterns', () => {
    expect(() => parseProfilePatterns('')).toThrow(
      "--profiles needs profile names or patterns separated by commas, got ''",
    );
    expect(() => parseProfilePatterns('dev,,prod')).toThrow('--profiles needs profile names');
    expect(() => parseProfilePatterns('prod.*')).toThrow("invalid profile pattern 'prod.*'");
  });

  it('profileMatches tells one name', () => {
    expect(profileMatches('prod-*,dev', 'prod-eu')).toBe(true);
    expect(profileMatches('prod-*,dev', 'staging')).toBe(false);
  });
});
