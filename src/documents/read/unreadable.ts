/** A file that cannot be read at all (corrupt PDF, unknown image data): the document fails cleanly. */
export class UnreadableFile extends Error {}
