/** The kinds of file igw turns into text for vector stores. */
export type DocumentFormat = 'text' | 'markdown' | 'html' | 'pdf' | 'docx' | 'csv' | 'json' | 'code';

export interface DocumentInput {
  bytes: Buffer;
  /** The name the file was uploaded (or fetched) under; its extension helps detect the type. */
  filename: string;
  /** Declared media type (upload part or Content-Type), parameters allowed; may be wrong. */
  mimeType?: string;
}

export interface ExtractedDocument {
  /** Plain text in reading order, paragraphs separated by blank lines. */
  text: string;
  format: DocumentFormat;
  /** The document's own title when it has one (HTML title, Markdown heading, PDF/DOCX metadata). */
  title?: string;
}
