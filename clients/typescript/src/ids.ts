/** Event ids made by the client: `evt_` and a random UUID (Web Crypto, in browsers and Node). */

interface WebCrypto {
  randomUUID?: () => string;
}

export async function newEventId(): Promise<string> {
  const web = (globalThis as { crypto?: WebCrypto }).crypto;
  if (web?.randomUUID) return `evt_${web.randomUUID()}`;
  // Node.js 18 without --experimental-global-webcrypto: its crypto module has the same call.
  const name = "node:crypto";
  const mod = (await import(name)) as { randomUUID: () => string };
  return `evt_${mod.randomUUID()}`;
}
