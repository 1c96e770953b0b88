/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ATTRIBUTE_TEXT_H
#define AI_FABRIC_ATTRIBUTE_TEXT_H

#include "ns3/attribute.h"
#include "ns3/object-base.h"
#include "ns3/ptr.h"

#include <map>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Attribute values as text that stays the same from one run to the next.
 *
 * ns-3 writes a PointerValue as the object's memory address, which differs in every
 * process. Here an attribute that points to an object is written as that object's
 * TypeId and attributes in ns-3's attribute syntax, nested as deep as the objects
 * point ("ns3::RateErrorModel[ErrorRate=0.01|...|RanVar=ns3::UniformRandomVariable[
 * ...]]"), and a null pointer as "none"; every other value as ns-3 serialises it.
 * Attributes are listed by name, in alphabetical order.
 */
class AttributeText
{
  public:
    /**
     * \param value an attribute's value \param checker its checker
     * \return the value as text
     */
    static std::string ToString(const AttributeValue& value, Ptr<const AttributeChecker> checker);

    /**
     * \param object an object
     * \return its TypeId and every attribute it can report:
     *         "ns3::Type[Name=value|Name=value]"
     */
    static std::string Describe(const ObjectBase& object);

    /**
     * \param object an object
     * \return every attribute it can report (its TypeId's and its parents'), by name;
     *         deprecated aliases (TypeId::SupportLevel::DEPRECATED) are left out
     */
    static std::map<std::string, std::string> GetAttributes(const ObjectBase& object);

  private:
    /// Deepest chain of objects followed (a cycle of pointers stops there).
    static constexpr uint32_t MAX_DEPTH = 8;

    /// ToString, depth objects deep. \param value a value \param checker its checker
    /// \param depth objects followed so far \return the text
    static std::string ToString(const AttributeValue& value,
                                Ptr<const AttributeChecker> checker,
                                uint32_t depth);
    /// Describe, depth objects deep. \param object an object \param depth objects
    /// followed so far \return the text
    static std::string Describe(const ObjectBase& object, uint32_t depth);
    /// GetAttributes, depth objects deep. \param object an object \param depth objects
    /// followed so far \return the attributes
    static std::map<std::string, std::string> GetAttributes(const ObjectBase& object,
                                                            uint32_t depth);
};

} // namespace ns3

#endif /* AI_FABRIC_ATTRIBUTE_TEXT_H */
