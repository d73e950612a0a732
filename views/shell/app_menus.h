#pragma once

class QMainWindow;
class QMenu;

namespace attnlab {

// View → Language: English / 简体中文. The choice is stored (QSettings) and applies at the next start;
// the menu says so and offers to restart now.
void addLanguageMenu(QMenu* viewMenu, QMainWindow* window);
// Help: the README's essentials, the keyboard shortcuts (read from the window's actions, so the list is
// never out of date) and About (version).
void addHelpMenu(QMainWindow* window);

} // namespace attnlab
