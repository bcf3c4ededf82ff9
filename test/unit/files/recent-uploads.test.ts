import { describe, expect, it } from 'vitest';
import { RecentUploads } from '../../../src/files/recent-uploads.js';

describe('RecentUploads', () => {
  it('gives kept bytes out once, as a copy of their own', () => {
    const recent = new RecentUploads();
    const upload = Buffer.from('sealed bytes');
    recent.keep('file-a', upload);
    upload.fill(0);
    expect(recent.take('file-a')?.toString()).toBe('sealed bytes');
    expect(recent.take('file-a')).toBeUndefined();
    expect(recent.size).toBe(0);
  });

  it('keeps no upload over 64 KB, drops on request, and holds at most 8 MB, oldest out first', () => {
    const recent = new RecentUploads();
    recent.keep('large', Buffer.alloc(64 * 1024 + 1));
    expect(recent.size).toBe(0);
    recent.keep('dropped', Buffer.alloc(10));
    recent.drop('dropped');
    expect(recent.take('dropped')).toBeUndefined();
    for (let at = 0; at < 200; at += 1) recent.keep(`f${at}`, Buffer.alloc(64 * 1024, at));
    expect(recent.size).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(recent.size).toBeGreaterThan(8 * 1024 * 1024 - 64 * 1024);
    expect(recent.take('f0')).toBeUndefined();
    expect(recent.take('f199')?.[0]).toBe(199);
  });
});
