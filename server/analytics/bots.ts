import { isbot } from 'isbot';

/**
 * Automated browsers isbot lets through: headless and scripted browsers announce themselves in the
 * user agent, though not in the words crawlers use.
 */
const automated =
  /HeadlessChrome|PhantomJS|SlimerJS|Electron\/|Puppeteer|Playwright|Selenium|WebDriver|Cypress|Nightmare|jsdom|HtmlUnit|Lighthouse|PTST\//i;

/** Whether a user agent is a bot, a crawler or an automated browser; a missing one is a bot too. */
export function isBotAgent(userAgent: string | undefined): boolean {
  if (!userAgent) return true;
  return isbot(userAgent) || automated.test(userAgent);
}
