import { DocumentError } from './document-error.js';
import { layoutPageText, type LayoutItem } from './pdf-layout.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * PDF → text with pdf.js (Mozilla's PDF engine) through unpdf, which bundles a build of it
 * without native or browser dependencies (no canvas, no DOM, no install script). Each page's
 * text items become lines in reading order (pdf-layout.ts); pages are separated by a blank line.
 */
export async function extractPdf(input: DocumentInput): Promise<ExtractedDocument> {
  const { pages, title } = await extractPdfPages(input);
  const text = pages.filter((page) => page !== '').join('\n\n');
  return title === undefined ? { text, format: 'pdf' } : { text, format: 'pdf', title };
}

export interface PdfPages {
  /** One entry per physical page, in order; '' for a page without text. */
  pages: string[];
  title?: string;
}

/** The text of each page (POST /v1/documents/convert answers page by page). */
export async function extractPdfPages(input: DocumentInput): Promise<PdfPages> {
  const { getDocumentProxy, extractTextItems, getMeta } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (and may detach) the buffer it gets: give it a copy.
    // verbosity 0: errors only; font warnings of odd PDFs are not ours to print.
    pdf = await getDocumentProxy(new Uint8Array(input.bytes), { verbosity: 0 });
  } catch (error) {
    throw openFailure(error, input.filename);
  }
  try {
    const { items } = await extractTextItems(pdf);
    const pages = items.map((page) => layoutPageText(page as LayoutItem[]));
    if (pages.every((text) => text === '')) {
      throw new DocumentError('invalid_file', `"${input.filename}" has no text layer (a scanned PDF?); igw does not run OCR: send a PDF with selectable text or the text itself.`);
    }
    const title = await metadataTitle(getMeta, pdf);
    return title === undefined ? { pages } : { pages, title };
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    throw new DocumentError('invalid_file', `"${input.filename}" could not be read as a PDF (${(error as Error).message}).`, { cause: error });
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

function openFailure(error: unknown, filename: string): DocumentError {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'PasswordException') {
    return new DocumentError('invalid_file', `"${filename}" is password-protected; remove the password and upload it again.`, { cause: error });
  }
  return new DocumentError('invalid_file', `"${filename}" is not a readable PDF (${(error as Error).message}); it may be damaged or only partly uploaded.`, { cause: error });
}

/** The document-information title, unless it is a leftover file name or a placeholder. */
async function metadataTitle(getMeta: typeof import('unpdf').getMeta, pdf: Parameters<typeof import('unpdf').getMeta>[0]): Promise<string | undefined> {
  try {
    const { info } = await getMeta(pdf);
    const title = typeof (info as Record<string, unknown>).Title === 'string' ? ((info as Record<string, unknown>).Title as string).trim() : '';
    if (title === '' || /\.(exe|docx?|pdf|indd|qxd|rtf|tmp|txt|html?)$/i.test(title) || /^(untitled|microsoft word\b|document\d*$)/i.test(title)) return undefined;
    return title;
  } catch {
    return undefined;
  }
}
