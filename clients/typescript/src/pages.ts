/** Cursor paging: every list of the API answers `{items, nextCursor}`; pass `nextCursor` back. */
import type { Page } from "./types.js";

/** Fetches one page for a cursor (`undefined`: the first page). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>;

/** Every page, first to last, each fetched only when the loop asks for it. */
export async function* pages<T>(fetchPage: PageFetcher<T>): AsyncGenerator<Page<T>, void, undefined> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    const next = page.nextCursor;
    if (next === null || next === undefined || next === "") return;
    if (seen.has(next)) throw new Error(`the API returned the cursor ${next} twice`);
    seen.add(next);
    cursor = next;
  }
}

/** Every item across pages, in the API's order. */
export async function* items<T>(fetchPage: PageFetcher<T>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages(fetchPage)) yield* page.items;
}
