export const PRODUCT_NAME = "Heartline";

/**
 * docs/domain.md "Pages, navigation and appearance": the page title is the page name followed by
 * the product name.
 */
export const pageTitle = (name: string) => `${name} - ${PRODUCT_NAME}`;

export const titleMeta = (name: string) => [{ title: pageTitle(name) }];
