import type { Page } from 'playwright-core';

/** What a person on a phone would stumble over on the page as it is, one line each; none is what a phone needs. */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // the page's own DOM types are not in this package's lib: the few used, by hand
    interface Box {
      left: number;
      right: number;
      top: number;
      bottom: number;
      width: number;
      height: number;
    }
    interface El {
      tagName: string;
      textContent: string | null;
      children: ArrayLike<El>;
      closest(selector: string): El | null;
      querySelectorAll(selector: string): ArrayLike<El>;
      getBoundingClientRect(): Box;
    }
    const g = globalThis as unknown as {
      innerWidth: number;
      document: { documentElement: El & { scrollWidth: number }; querySelectorAll(s: string): ArrayLike<El> };
      getComputedStyle(el: El): { overflowWrap: string; wordBreak: string; display: string; visibility: string };
    };
    const width = g.innerWidth;
    const problems: string[] = [];
    const name = (el: El) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    const shown = (el: El) => {
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && g.getComputedStyle(el).visibility !== 'hidden';
    };
    const within = (inner: Box, outer: { left: number; right: number }) =>
      inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;

    const scrollWidth = g.document.documentElement.scrollWidth;
    if (scrollWidth > width) problems.push(`the page scrolls sideways: ${scrollWidth} px wide in ${width}`);

    // a table's actions: in the viewport, and not scrolled out of sight inside the table's region
    for (const button of Array.from(g.document.querySelectorAll('main table button, main table a'))) {
      if (!shown(button)) continue;
      const box = button.getBoundingClientRect();
      const region = button.closest('.table-wrap')?.getBoundingClientRect() ?? { left: 0, right: width };
      if (!within(box, { left: 0, right: width }) || !within(box, region))
        problems.push(`${name(button)} is off-screen (${Math.round(box.left)}–${Math.round(box.right)} px)`);
    }

    // the navigation: every link in view
    for (const link of Array.from(g.document.querySelectorAll('nav[aria-label="Dashboard"] a'))) {
      if (!shown(link) || !within(link.getBoundingClientRect(), { left: 0, right: width }))
        problems.push(`navigation link ${name(link)} is out of view`);
    }

    // the header: its parts on one row (their vertical extents overlap)
    const parts = Array.from(g.document.querySelectorAll('header.top > *')).filter(shown);
    const rowTop = Math.max(...parts.map((p) => p.getBoundingClientRect().top));
    const rowBottom = Math.min(...parts.map((p) => p.getBoundingClientRect().bottom));
    if (parts.length > 0 && rowTop >= rowBottom) problems.push('the header takes more than one row');

    // e-mail addresses: never styled to break inside a word, and never wider than their box
    const email = /[^\s@()]+@[^\s@()]+\.[a-z]{2,}/i;
    for (const el of Array.from(g.document.querySelectorAll('main *, header *'))) {
      const own = Array.from(el.children).length === 0 ? (el.textContent ?? '') : '';
      if (!email.test(own) && !(el.tagName === 'SPAN' && email.test(el.textContent ?? ''))) continue;
      // both properties are inherited: the element's own computed values are those its text is laid out with
      const style = g.getComputedStyle(el);
      if (style.overflowWrap === 'anywhere' || style.wordBreak === 'break-all' || style.wordBreak === 'break-word')
        problems.push(`${name(el)} may break mid-word (${style.overflowWrap}, ${style.wordBreak})`);
      if (!within(el.getBoundingClientRect(), { left: 0, right: width })) problems.push(`${name(el)} overflows`);
    }
    return [...new Set(problems)];
  });
}
